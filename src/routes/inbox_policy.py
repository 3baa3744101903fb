"""The payments door's limits (routes/payment_inbox.py), per client address (IPv6 per /64)
with the `limits` library, counted in each process's memory: refusing a flood costs no
database work, and its requests leave no rows.

Per address: requests that did not prove an inbox's secret (no inbox of that name, one
turned off, no signature or a wrong one, a stale timestamp), after which the address
waits whatever it sends; and a generous ceiling on all requests, which bounds the
writes a sender holding a secret can cause. A refused request is HTTP 429 with
Retry-After. How long the requests an inbox answered are kept is here too.
"""

from dataclasses import dataclass, field

from api.throttle import AddressLimits

# The defaults of PRESSROOM_INBOX_FAILURES_PER_ADDRESS, PRESSROOM_INBOX_REQUESTS_PER_ADDRESS
# and PRESSROOM_INBOX_REQUEST_RETENTION_DAYS.
FAILURES_PER_ADDRESS = "10/minute"
REQUESTS_PER_ADDRESS = "600/minute"
KEEP_DAYS = 90


@dataclass
class InboxPolicy:
    failures_per_address: str = FAILURES_PER_ADDRESS
    requests_per_address: str = REQUESTS_PER_ADDRESS
    keep_days: int = KEEP_DAYS
    # A failure is a request that did not prove an inbox's secret.
    addresses: AddressLimits = field(init=False)

    def __post_init__(self) -> None:
        self.addresses = AddressLimits(
            "inbox", self.failures_per_address, self.requests_per_address
        )
