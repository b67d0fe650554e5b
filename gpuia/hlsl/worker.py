"""gpuia's Slang worker: ``python -m gpuia.hlsl.worker``, started by ``gpuia.hlsl.library``.

Slang runs in this process, not in the caller's: a source that makes Slang crash (its WGSL back
end does on some valid shaders) or spin ends this process only, and the caller reports it as a
refusal of that one shader. The protocol is length-prefixed JSON on stdin and stdout: a request
per compile, a reply per request (``library.compile_in_this_process``'s dict, or
``{"ok": false, "kind": "slang"|"unsupported", "message": ...}``); a request ``{"op": "naga",
"code": ...}`` asks naga about WGSL (``gpuia.hlsl.naga``: ``{"ok": true, "checked": ...,
"error": ...}``). The process ends when its
stdin closes, or when its parent is gone (:func:`gpuia.util.interrupt.exit_with_parent`).
"""

from __future__ import annotations

import sys

from ..errors import UnsupportedError
from ..util.interrupt import exit_with_parent
from . import library, naga


def main() -> int:
    exit_with_parent()  # a compile in progress must not outlive a killed caller
    naga.start()  # its device is made while Slang's session is
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    while True:
        request = library.receive_message(inp)
        if request is None:
            return 0
        if request.get("op") == "naga":
            checked, error = naga.check(request["code"])
            library.send_message(out, {"ok": True, "checked": checked, "error": error})
            continue
        try:
            reply = library.compile_in_this_process(
                request["source"], request["file_name"], request["entry_point"],
                request["stage"], request["target"], tuple(request["args"]),
                tuple(tuple(d) for d in request["defines"]), tuple(request["include_dirs"]),
                request["what"])
        except library.SlangError as e:
            reply = {"ok": False, "kind": "slang", "message": e.diagnostics}
        except UnsupportedError as e:
            reply = {"ok": False, "kind": "unsupported", "message": str(e)}
        library.send_message(out, reply)


if __name__ == "__main__":
    sys.exit(main())
