"""The legacy users of the generated databases (samples/legacy_data.py), and what the
import must make of them: admins, workers, memberships, the exclusions, and the operators
that steps name."""

from __future__ import annotations

from domain.legacy import SYSTEM_USER_EMAIL

# Department texts and roles name departments by role: {sales} {accounts} {design} {print}
# {finishing} {delivery}, each also as {Print} (title case) and {FINISHING} (upper case).

# id, email, name, department, is_admin, roles
USERS: list[tuple[int, str | None, str | None, str | None, bool | None, list[str | None]]] = [
    (1, "Pat@Shop.test", "Pat Legacy", "{PRINT}", False, ["operator", "{Finishing}"]),
    (2, "DEE@shop.test", "Dee", "{design}", None, ["operator"]),
    (3, "ada@shop.test", "Ada", None, True, []),
    (4, "boss@legacy.test", "Boss", "{Sales}", True, []),
    (5, "root@legacy.test", "Root", None, False, ["admin"]),
    # A manager who is an admin, and one who is not: the role alone never makes an admin.
    (6, "Manager.Admin@Legacy.test", "Mia Manager", "{accounts}", True, ["manager"]),
    (7, "manager@legacy.test", "Max Manager", "{Design}", False, ["manager"]),
    (8, "seller@legacy.test", "Sue Seller", None, None, ["{sales}"]),
    (9, "printer@legacy.test", "Pete Printer", None, False, ["{Print}", "operator"]),
    (10, "finisher@legacy.test", "Fay Finisher", " {FINISHING} ", False, ["operator"]),
    (11, "nowhere@legacy.test", "Nora Nowhere", "Warehouse", False, ["operator"]),
    # One person twice, the email in two cases: one Pressroom user with both memberships.
    (12, "Twin@Legacy.test", "Tom Twin", "{print}", False, []),
    (13, "twin@legacy.test", "Tom Twin (old)", "{design}", None, ["ADMIN"]),
    (14, None, "Ghost", "{print}", False, ["operator"]),
    (15, "not-an-address", "Nobody", None, False, []),
    (16, "   ", "Blank", None, False, []),
    (17, "Dispatch@Legacy.Test", "Dan Dispatch", "{Delivery}", None, ["driver"]),
    (18, "  padded@legacy.test  ", None, None, False, ["operator"]),
    (19, "books@legacy.test", "Bo Books", None, False, ["{accounts}", "manager"]),
    (20, "roleless@legacy.test", "", None, None, [None]),
    # Names the API would refuse (over 200 characters; no name, and an email whose local
    # part, the name then, is over 200) and the longest it takes.
    (21, "longname@legacy.test", "N" * 201, "{print}", False, ["operator"]),
    (22, f"{'x' * 201}@legacy.test", None, "{print}", False, []),
    (23, "Longest@Legacy.test", "Lo" * 100, None, None, ["{finishing}"]),
]
# Roles of a user the old system deleted (no users row): nobody gets them.
ORPHAN_ROLES = [(999, "admin"), (999, "{print}")]
BAD_EMAIL_USERS = (14, 15, 16)
BAD_NAME_USERS = (21, 22)

# What the import must make of them (lowercased emails; memberships by role).
ADMINS = {
    "ada@shop.test",
    "boss@legacy.test",
    "root@legacy.test",
    "manager.admin@legacy.test",
    "twin@legacy.test",
}
WORKERS = {
    "pat@shop.test",
    "dee@shop.test",
    "manager@legacy.test",
    "seller@legacy.test",
    "printer@legacy.test",
    "finisher@legacy.test",
    "nowhere@legacy.test",
    "dispatch@legacy.test",
    "padded@legacy.test",
    "books@legacy.test",
    "roleless@legacy.test",
    "longest@legacy.test",
}
MEMBERSHIPS = {
    "pat@shop.test": {"print", "finishing"},
    "dee@shop.test": {"design"},
    "ada@shop.test": set(),
    "boss@legacy.test": {"sales"},
    "root@legacy.test": set(),
    "manager.admin@legacy.test": {"accounts"},
    "manager@legacy.test": {"design"},
    "seller@legacy.test": {"sales"},
    "printer@legacy.test": {"print"},
    "finisher@legacy.test": {"finishing"},
    "nowhere@legacy.test": set(),
    "twin@legacy.test": {"print", "design"},
    "dispatch@legacy.test": {"delivery"},
    "padded@legacy.test": set(),
    "books@legacy.test": {"accounts"},
    "roleless@legacy.test": set(),
    "longest@legacy.test": {"finishing"},
}
# Relative to EXISTING_USERS: Pat gains finishing; Dee and Ada gain nothing.
USERS_UPDATED = {"pat@shop.test"}
USERS_UNCHANGED = {"dee@shop.test", "ada@shop.test"}

# Step operators by name: legacy user ids, and the Pressroom user a worked task names.
OPERATORS: dict[str, int] = {
    "pat": 1,
    "dee": 2,
    "printer": 9,
    "finisher": 10,
    "twin_a": 12,
    "twin": 13,
    "bad": 14,  # a legacy user excluded for BAD_EMAIL: not an importable operator
    "dispatch": 17,
    "gone": 900,  # deleted operators: no legacy.users row
    "gone2": 901,
    "bad_name": 21,  # a legacy user excluded for BAD_NAME: no importable operator either
}
PICKERS: dict[str, str] = {
    "pat": "pat@shop.test",
    "dee": "dee@shop.test",
    "printer": "printer@legacy.test",
    "finisher": "finisher@legacy.test",
    "twin_a": "twin@legacy.test",
    "twin": "twin@legacy.test",
    "dispatch": "dispatch@legacy.test",
    "system": SYSTEM_USER_EMAIL,  # the import's system user
}
