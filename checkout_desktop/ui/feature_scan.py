"""PySide's per-import source scan, made cheap.

Once PySide6 is imported, every later import in the process passes through its `__feature__`
import hook, which reads the whole source file of each new module (`inspect.getsource`) to
learn whether the module uses PySide6. That was ≈ 0.2 ms per module here: 90 ms over the 430
modules the terminal imports after Qt, most of them its core, loaded on a worker thread while
Chromium starts the card page. The answer matters only to modules that switch a feature on
(`from __feature__ import snake_case`), which checkout-desktop never does. It is read here
from the module's own names instead (a name bound to one of PySide6's modules, classes or
functions), without opening the file. Where PySide's internals are not the ones expected
(another version), nothing is changed.
"""

from __future__ import annotations

import logging
import sys
from types import ModuleType

import PySide6.QtCore  # noqa: F401  (the hook exists once PySide6 is imported)

logger = logging.getLogger(__name__)

_HOOK_MODULE = "shibokensupport.feature"
_CHECK = "_mod_uses_pyside"


def make_feature_scan_cheap() -> bool:
    """Replace the source-reading check with one on the module's names; True if replaced."""
    feature = sys.modules.get(_HOOK_MODULE)
    if feature is None or not callable(getattr(feature, _CHECK, None)):
        logger.debug("PySide's feature hook is not the expected one; left as it is")
        return False
    if getattr(feature, _CHECK) is uses_pyside:
        return True
    setattr(feature, _CHECK, uses_pyside)
    return True


def uses_pyside(module: ModuleType) -> bool:
    """Whether one of the module's names is bound to something of PySide6's."""
    try:
        values = list(vars(module).values())
    except TypeError:
        return False
    for value in values:
        origin = _origin(value)
        if isinstance(origin, str) and (origin == "PySide6" or origin.startswith("PySide6.")):
            return True
    return False


def _origin(value: object) -> object:
    """The module a value comes from (a module's own name for a module), or None."""
    if isinstance(value, ModuleType):
        return value.__name__
    try:
        return getattr(value, "__module__", None)
    except Exception:
        return None
