"""What the origin settings (PRESSROOM_CORS_ORIGINS, PRESSROOM_WEBSOCKET_ORIGINS) hold: a
comma-separated list of origins, or *."""

import re

# What a browser sends as Origin: http or https, a host (a name, IPv4 or [IPv6]), a port.
ORIGIN = re.compile(r"https?://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?")


def origins(value: str) -> tuple[str, ...]:
    """The origins `value` lists; ValueError for one that is not an origin."""
    listed = tuple(o.strip().rstrip("/") for o in value.split(",") if o.strip())
    for origin in listed:
        if origin != "*" and not ORIGIN.fullmatch(origin):
            raise ValueError(
                f"{origin!r} is not an origin: a scheme, a host and perhaps a port, "
                "no path (e.g. https://desk.example.com or http://localhost:5173), or *."
            )
    return listed
