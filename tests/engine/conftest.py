"""Engine tests need no database: make the repository importable without Django's help.

``python3 -m pytest`` puts the working directory on ``sys.path``; a bare ``pytest`` with
pytest-django does it through manage.py. Adding the root here keeps both ways working and keeps
``engine_helpers`` (beside this file) importable from the test modules.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
for path in (str(ROOT), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)
