"""The cases of active legacy orders (open, in production): imported into the queues, or
excluded for a step the import cannot interpret."""

from __future__ import annotations

from samples.legacy_case import PRINT_PENDING, C, P, Pay, R, S, live, out

LIVE = [
    live(
        "open_pending",
        "open",
        (("{print}", "pending", "pat"), ("{finishing}", "pending", None)),
        {"print": (P, None), "finishing": (P, None), "delivery": (P, None)},
        items="none",
        payments=(Pay(12_000),),
    ),
    live(
        "in_production_started",
        "in_production",
        (
            ("{design}", "done", "dee"),
            ("{print}", "started", "pat"),
            ("{finishing}", "pending", None),
        ),
        {"design": (C, "dee"), "print": (S, "pat"), "finishing": (P, None), "delivery": (P, None)},
        payments=(Pay(5_000, paid=False), Pay(2_500)),
    ),
    live(
        "gating_done_gate_opens",
        "in_production",
        (
            ("{design}", "pending", None),
            ("{print}", "done", "printer"),
            ("{finishing}", "done", "finisher"),
        ),
        {
            "design": (P, None),
            "print": (C, "printer"),
            "finishing": (C, "finisher"),
            "delivery": (P, None),
        },
        gate=True,
        opens_gate=True,
        items="big",
    ),
    live(
        "no_gating_step_gate_opens",
        "open",
        (("{design}", "started", "dee"),),
        {"design": (S, "dee"), "delivery": (P, None)},
        gate=True,
        opens_gate=True,
    ),
    live(
        "every_step_done_completes",
        "in_production",
        (
            ("{print}", "done", "pat"),
            ("{finishing}", "done", "twin"),
            ("{delivery}", "done", "dispatch"),
        ),
        {"print": (C, "pat"), "finishing": (C, "twin"), "delivery": (C, "dispatch")},
        final=C,
        gate=True,
        payments=(Pay(2_000_000_000),),
    ),
    live(
        "production_done_delivery_added",
        "open",
        (("{print}", "done", "pat"), ("{finishing}", "done", "finisher")),
        {"print": (C, "pat"), "finishing": (C, "finisher"), "delivery": (P, None)},
        gate=True,
        opens_gate=True,
    ),
    live(
        "mixed_case_step_names",
        "in_production",
        (
            ("{Print}", "started", "printer"),
            (" {FINISHING} ", "pending", None),
            ("{DELIVERY}", "pending", None),
        ),
        {"print": (S, "printer"), "finishing": (P, None), "delivery": (P, None)},
    ),
    live(
        "status_upper_case",
        "OPEN",
        PRINT_PENDING,
        {"print": (P, None), "delivery": (P, None)},
    ),
    live(
        "status_padded",
        " In_Production ",
        (("{design}", "done", "dee"), ("{print}", "pending", None)),
        {"design": (C, "dee"), "print": (P, None), "delivery": (P, None)},
    ),
    live(
        "null_created_null_flags_zero_quote",
        "open",
        (("{print}", "started", "pat"),),
        {"print": (S, "pat"), "delivery": (P, None)},
        created=False,
        flags=False,
        timestamps=False,
        items="zero",
    ),
    live(
        "twin_operator",
        "open",
        (("{finishing}", "started", "twin_a"),),
        {"finishing": (S, "twin_a"), "delivery": (P, None)},
    ),
    live(
        "delivery_started_early",
        "in_production",
        (("{print}", "pending", None), ("{delivery}", "started", "dispatch")),
        {"print": (P, None), "delivery": (S, "dispatch")},
        gate=True,
    ),
    live(
        "step_status_case",
        "open",
        (("{print}", " Started ", "pat"), ("{finishing}", "DONE", "finisher")),
        {"print": (S, "pat"), "finishing": (C, "finisher"), "delivery": (P, None)},
    ),
]

LIVE_EXCLUDED = [
    out("no_steps", "open", R.NO_STEPS, payments=(Pay(3_000, R.PAYMENT_ORDER_EXCLUDED),)),
    out(
        "generic_production",
        "in_production",
        R.GENERIC_PRODUCTION_STEP,
        (("{design}", "done", "dee"), ("Production", "pending", None)),
    ),
    out(
        "generic_before_unknown",
        "open",
        R.GENERIC_PRODUCTION_STEP,
        (("production", "pending", None), ("laminate", "pending", None)),
    ),
    out(
        "unknown_step",
        "open",
        R.UNKNOWN_STEP,
        (("{print}", "pending", None), ("laminate", "pending", None)),
    ),
    # Rows written in descending id order: the lower id (laminate) still decides.
    out(
        "unknown_before_generic",
        "open",
        R.UNKNOWN_STEP,
        (("laminate", "pending", None), ("production", "pending", None)),
        reverse_rows=True,
    ),
    out("sales_is_no_step", "open", R.UNKNOWN_STEP, (("{sales}", "done", "pat"),)),
    out("null_step_name", "in_production", R.UNKNOWN_STEP, ((None, "pending", None),)),
    out(
        "duplicate_step",
        "in_production",
        R.DUPLICATE_STEP,
        (("{print}", "done", "pat"), ("{print} ", "pending", None)),
    ),
    out(
        "duplicate_before_status",
        "open",
        R.DUPLICATE_STEP,
        (("{print}", "pending", None), ("{PRINT}", "weird", None)),
    ),
    out("unknown_step_status", "open", R.UNKNOWN_STEP_STATUS, (("{print}", "paused", "pat"),)),
    out(
        "null_step_status",
        "in_production",
        R.UNKNOWN_STEP_STATUS,
        (("{design}", "done", "dee"), ("{finishing}", None, None)),
    ),
    out("status_before_operator", "open", R.UNKNOWN_STEP_STATUS, (("{print}", "weird", "gone"),)),
    out(
        "deleted_operator_started",
        "in_production",
        R.UNKNOWN_OPERATOR,
        (("{print}", "started", "gone"),),
    ),
    out(
        "no_operator_started", "in_production", R.UNKNOWN_OPERATOR, (("{print}", "started", None),)
    ),
    out("no_operator_done", "open", R.UNKNOWN_OPERATOR, (("{finishing}", "done", None),)),
    out("deleted_operator_pending", "open", R.UNKNOWN_OPERATOR, (("{print}", "pending", "gone2"),)),
    out(
        "bad_email_operator", "in_production", R.UNKNOWN_OPERATOR, (("{print}", "started", "bad"),)
    ),
    out(
        "bad_name_operator",
        "in_production",
        R.UNKNOWN_OPERATOR,
        (("{print}", "started", "bad_name"),),
    ),
    out(
        "operator_before_unknown_step",
        "in_production",
        R.UNKNOWN_OPERATOR,
        (("{print}", "started", "gone"), ("laminate", "pending", None)),
    ),
]
