"""The cases that turn on rules every legacy order passes, whatever its status: its status,
customer, line items and details, and its number (duplicates, taken, formulas, missing)."""

from __future__ import annotations

from samples.legacy_case import CANCELLED, PRINT_PENDING, C, Case, P, Pay, R, live, out

EVERY_ORDER_EXCLUDED = [
    out(
        "null_status",
        None,
        R.UNKNOWN_STATUS,
        PRINT_PENDING,
        payments=(Pay(None, R.PAYMENT_ORDER_EXCLUDED),),
    ),
    out("shipped_no_customer", "shipped", R.UNKNOWN_STATUS, customer=None),
    out("blank_status", "  ", R.UNKNOWN_STATUS, PRINT_PENDING),
    out("quote", "quote", R.QUOTE_ONLY),
    out(
        "quote_before_customer_and_items",
        " Quote ",
        R.QUOTE_ONLY,
        customer=None,
        items="null_qty",
        payments=(Pay(0, R.PAYMENT_ORDER_EXCLUDED),),
    ),
    out("null_customer", "done", R.MISSING_CUSTOMER, (("{print}", "done", "pat"),), customer=None),
    out(
        "blank_customer_before_items_and_steps",
        "open",
        R.MISSING_CUSTOMER,
        customer="   ",
        items="neg_price",
    ),
    out("null_qty", "done", R.BAD_LINE_ITEM, items="null_qty"),
    out("null_price", "cancelled", R.BAD_LINE_ITEM, items="null_price"),
    out(
        "negative_price_before_steps",
        "open",
        R.BAD_LINE_ITEM,
        (("production", "pending", None),),
        items="neg_price",
    ),
    out("negative_qty_before_no_steps", "in_production", R.BAD_LINE_ITEM, items="neg_qty"),
    # Values the API would refuse: excluded whatever the order's status.
    out("number_too_long", "done", R.BAD_ORDER_NUMBER, order_no="N{id:040d}"),
    out(
        "number_bad_format",
        "open",
        R.BAD_ORDER_NUMBER,
        PRINT_PENDING,
        order_no="L {id}",
        payments=(Pay(2_000, R.PAYMENT_ORDER_EXCLUDED),),
    ),
    out("number_formula", "cancelled", R.BAD_ORDER_NUMBER, order_no="=2+{id}"),
    out(
        "customer_too_long",
        "done",
        R.BAD_CUSTOMER_NAME,
        (("{print}", "done", "pat"),),
        customer="Customer " * 23,
    ),
    out(
        "customer_too_long_before_items",
        "open",
        R.BAD_CUSTOMER_NAME,
        customer="C" * 201,
        items="neg_qty",
    ),
    out("notes_too_big", "cancelled", R.BAD_DETAILS, notes="Deliver to the back door. " * 700),
    out(
        "items_too_big_before_steps",
        "in_production",
        R.BAD_DETAILS,
        (("production", "pending", None),),
        items="huge",
    ),
    out("unmapped_steps_too_big", "done", R.BAD_DETAILS, (("laminate " * 2_000, "done", None),)),
]

# The four characters that start a formula, in the numbers of the `formula_*` cases.
FORMULA_NUMBERS = {
    "eq": "=1+{cycle}",
    "plus": "+1+{cycle}",
    "minus": "-1-{cycle}",
    "at": "@SUM({cycle})",
}

NUMBERS = [
    # Two orders share a number (one padded with spaces): both excluded.
    (
        Case(
            "duplicate_pair_a",
            "open",
            PRINT_PENDING,
            reason=R.DUPLICATE_ORDER_NUMBER,
            order_no="D{cycle}-A",
            payments=(Pay(1_500, R.PAYMENT_ORDER_EXCLUDED),),
        ),
        Case("duplicate_pair_b", "done", reason=R.DUPLICATE_ORDER_NUMBER, order_no=" D{cycle}-A "),
    ),
    # The quote is a quote first; its twin is still a duplicate.
    (
        Case("duplicate_quote", "quote", reason=R.QUOTE_ONLY, order_no="D{cycle}-Q"),
        Case("duplicate_of_quote", "done", reason=R.DUPLICATE_ORDER_NUMBER, order_no="D{cycle}-Q"),
    ),
    # The unknown status first; its twin's number comes before its missing customer.
    (
        Case("duplicate_unknown_status", "shipped", reason=R.UNKNOWN_STATUS, order_no="D{cycle}-S"),
        Case(
            "duplicate_before_customer",
            "cancelled",
            reason=R.DUPLICATE_ORDER_NUMBER,
            order_no="D{cycle}-S",
            customer=None,
        ),
    ),
    # A missing number becomes LEGACY-<id>, which another order already uses.
    (
        Case("null_number_taken_by_other", "done", reason=R.DUPLICATE_ORDER_NUMBER, order_no=None),
        Case(
            "number_is_legacy_of_other",
            "open",
            PRINT_PENDING,
            reason=R.DUPLICATE_ORDER_NUMBER,
            order_no="LEGACY-{prev}",
        ),
    ),
    (
        Case(
            "null_number",
            "done",
            (("{print}", "done", "pat"),),
            final=C,
            tasks={"print": (C, "pat"), "delivery": (C, "system")},
            order_no=None,
        ),
    ),
    (
        Case(
            "padded_number",
            "cancelled",
            final=CANCELLED,
            tasks={"delivery": (P, None)},
            order_no="  P{id:07d}  ",
        ),
    ),
    (
        live(
            "blank_number",
            "open",
            PRINT_PENDING,
            {"print": (P, None), "delivery": (P, None)},
            order_no="   ",
        ),
    ),
    # Numbers a spreadsheet would run as formulas, each shared by two orders: excluded as
    # duplicates, so the report lists them (and its detail starts with the number).
    *(
        (
            Case(
                f"formula_{name}_a",
                "done",
                reason=R.DUPLICATE_ORDER_NUMBER,
                order_no=number,
                payments=(Pay(1_000, R.PAYMENT_ORDER_EXCLUDED),),
            ),
            Case(
                f"formula_{name}_b",
                "open",
                PRINT_PENDING,
                reason=R.DUPLICATE_ORDER_NUMBER,
                order_no=number,
            ),
        )
        for name, number in FORMULA_NUMBERS.items()
    ),
]
