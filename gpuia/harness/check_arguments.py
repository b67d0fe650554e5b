"""The arguments of :func:`gpuia.harness.crosscheck.cross_check`, checked before any run:
each refusal an :class:`~gpuia.errors.InvalidDescError` naming the argument and what it takes.
"""

from __future__ import annotations

from typing import NoReturn

from ..errors import InvalidDescError
from ..gpu.device import Device
from .case import Case

__all__ = ["check_arguments"]

_PATHS = ("native", "pulling", "auto")
_ROUTES = ("auto", "storage", "targets")


def check_arguments(case, devices, paths, capture_route, rows, max_invocations, on_run,
                     raster) -> tuple[list[Device], tuple[str, ...]]:
    """cross_check's arguments, validated before any run: (device list, path tuple). Raises
    InvalidDescError naming the argument, as cross_check documents."""
    def refuse(field_name, value, rule) -> NoReturn:
        raise InvalidDescError("cross_check", field_name, value, rule)

    if not isinstance(case, Case):
        refuse("case", type(case).__name__,
               "expected a gpuia Case (gpuia.harness.case.load_case)")
    if isinstance(devices, Device):
        devices = [devices]
    elif isinstance(devices, (str, bytes)):
        refuse("devices", devices, "expected an iterable of gpuia Device objects "
                                   "(e.g. [gpuia.gpu.get_device()]), not a str")
    else:
        try:
            devices = list(devices)
        except TypeError:
            refuse("devices", devices, "expected an iterable of gpuia Device objects "
                                       "(e.g. [gpuia.gpu.get_device()])")
    for i, d in enumerate(devices):
        if not isinstance(d, Device):
            refuse(f"devices[{i}]", d, "expected a gpuia Device (gpuia.gpu.Device, get_device)")
    if isinstance(paths, str):
        refuse("paths", paths, f"expected a sequence of path names ({', '.join(_PATHS)}), "
                               f"e.g. [{paths!r}], not a str")
    try:
        paths = tuple(paths)
    except TypeError:
        refuse("paths", paths, f"expected a sequence of path names ({', '.join(_PATHS)})")
    for p in paths:
        if p not in _PATHS:
            refuse("paths", p, f"path names are {', '.join(_PATHS)}")
    if capture_route not in _ROUTES:
        refuse("capture_route", capture_route, f"expected one of {', '.join(_ROUTES)}")
    if rows is not None and (type(rows) is not int or rows < 0):
        refuse("rows", rows, "expected a non-negative integer or None (all rows)")
    if type(max_invocations) is not int or max_invocations < 0:
        refuse("max_invocations", max_invocations, "expected a non-negative integer")
    if on_run is not None and not callable(on_run):
        refuse("on_run", on_run, "expected a callable taking a CheckLine, or None")
    if raster is not None and not isinstance(raster, bool):
        refuse("raster", raster, "expected True, False or None")
    return devices, paths
