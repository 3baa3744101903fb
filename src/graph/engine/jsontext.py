"""The JSON text of results and messages.

orjson writes a dashboard page several times faster than the standard library, which
was a twentieth of the page's CPU. It refuses integers beyond 64 bits (a JSON field from
the legacy import could hold one): those take the standard library's path.
"""

import json

import orjson


def dumps(value: object) -> str:
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return json.dumps(value, separators=(",", ":"))
