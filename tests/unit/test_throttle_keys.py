"""What the sign-in throttle counts by: addresses (IPv6 per /64) and accounts."""

import pytest

from api.throttle import address_key, email_account, user_account


@pytest.mark.parametrize(
    ("address", "counted_as"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
        ("::ffff:203.0.113.7", "203.0.113.7"),
        ("testclient", "testclient"),
    ],
)
def test_addresses_are_counted_ipv6_per_64(address: str, counted_as: str) -> None:
    assert address_key(address) == counted_as


def test_a_person_and_an_unknown_email_have_keys_apart() -> None:
    assert user_account(6) != email_account("user:6")
    assert user_account(6) != user_account(7)
