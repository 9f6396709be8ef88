"""YAML/JSON text -> JSON-compatible data with source positions, under safe limits.

```python
doc = load_path("flow.arazzo.yaml")
doc.data                                       # plain dict/list/str/int/float/bool/None
doc.positions.locate("/workflows/0/steps/1")   # (line, column), 1-based
raise doc.error("/workflows/0", "missing 'steps'")
```
"""

from __future__ import annotations

from .document import LoadedDocument
from .limits import DEFAULT_LIMITS, Limits
from .load import load_path, load_text
from .positions import PositionIndex

__all__ = ["DEFAULT_LIMITS", "Limits", "LoadedDocument", "PositionIndex", "load_path", "load_text"]
