"""gpuia's Slang worker: ``python -m gpuia.hlsl.worker``, started by ``gpuia.hlsl.library``.

Slang runs in this process, not in the caller's: a source that makes Slang crash (its WGSL back
end does on some valid shaders) or spin ends this process only, and the caller reports it as a
refusal of that one shader. The protocol is length-prefixed JSON on stdin and stdout: a request
per compile, a reply per request (``library.compile_in_this_process``'s dict, or
``{"ok": false, "kind": "slang"|"unsupported", "message": ...}``); a request ``{"op": "naga",
"code": ...}`` asks naga about WGSL (``gpuia.hlsl.naga``: ``{"ok": true, "checked": ...,
"error": ...}``). The session is created as the process starts, before it reads a request
(:func:`setup`). The loop is :func:`gpuia.util.child.serve`'s: the process ends when its stdin
closes or its parent is gone, and stray output of Slang's goes to standard error, never into
the protocol.
"""

from __future__ import annotations

import sys

from ..errors import UnsupportedError
from ..util.child import serve
from . import library, naga


def handle(request: dict) -> dict:
    """One request: a naga check of WGSL (``op: naga``), else a compile."""
    if request.get("op") == "naga":
        checked, error = naga.check(request["code"])
        return {"ok": True, "checked": checked, "error": error}
    try:
        return library.compile_in_this_process(
            request["source"], request["file_name"], request["entry_point"],
            request["stage"], request["target"], tuple(request["args"]),
            tuple(tuple(d) for d in request["defines"]), tuple(request["include_dirs"]),
            request["what"])
    except library.SlangError as e:
        return {"ok": False, "kind": "slang", "message": e.diagnostics}
    except UnsupportedError as e:
        return {"ok": False, "kind": "unsupported", "message": str(e)}


def setup() -> None:
    """Before the first request: naga's device, in a thread, while Slang's library is loaded
    and its session created here, so that a worker started early has both ready."""
    naga.start()
    library.start_session()


def main() -> int:
    return serve(handle, setup)


if __name__ == "__main__":
    sys.exit(main())
