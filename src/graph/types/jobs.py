"""The job: what a work order makes, typed. It is kept in the order's `details`, under
the keys of its fields, beside whatever a shop keeps there of its own."""

from typing import Any

import strawberry
from strawberry.scalars import JSON

from domain import validation
from domain.validation import JOB_TEXTS, MAX_QUANTITY


def _up_to(key: str, what: str) -> Any:
    return strawberry.field(default=None, description=f"{what}: up to {JOB_TEXTS[key]} characters.")


@strawberry.input(
    description="The job as a whole: each field is checked (INVALID_INPUT at job.<field>, "
    "every problem in one answer) and kept in `details` under its name; a field left out, "
    "null or blank is removed from the details. Its fields win over `details` keys of the "
    "same names."
)
class JobInput:
    product: str | None = _up_to("product", "What is made, e.g. Flyers A5")
    quantity: JSON | None = strawberry.field(
        default=None,
        description=f"How many: a whole number from 1 to {MAX_QUANTITY:,}, as a number or "
        "its digits as text (what a form's field holds); anything else is INVALID_INPUT at "
        "job.quantity, not a GraphQL error.",
    )
    size: str | None = _up_to("size", "The finished size, e.g. A5 or 85 x 55 mm")
    stock: str | None = _up_to("stock", "The paper or material, e.g. 350 g silk")
    colours: str | None = _up_to("colours", "The colours, e.g. 4/4")
    finishing: str | None = _up_to("finishing", "What is done after printing, e.g. folded")
    notes: str | None = _up_to("notes", "Anything else the floor should know")

    def checked(self) -> dict[str, Any]:
        """Every field by its rule, each problem at job.<field>, all of them at once."""
        with validation.every_problem() as check:
            job = {
                key: check(validation.job_field, key, getattr(self, key), f"job.{key}")
                for key in validation.JOB_FIELDS
            }
        return job


@strawberry.type(
    description="The job, read from the order's details: a field is null when the details "
    "lack it or hold something that is not of its kind (an order from before these rules)."
)
class Job:
    product: str | None = strawberry.field(description='What is made ("Flyers A5").')
    quantity: int | None = strawberry.field(description="How many.")
    size: str | None = strawberry.field(description='The finished size ("A5", "85 x 55 mm").')
    stock: str | None = strawberry.field(description="The paper or material.")
    colours: str | None = strawberry.field(description='The colours printed ("4/4", "black only").')
    finishing: str | None = strawberry.field(
        description="What is done after printing (cutting, folding, laminating)."
    )
    notes: str | None = strawberry.field(description="Anything else the departments should know.")


@strawberry.type(description="One of a work order's details, in words.")
class DetailLine:
    label: str = strawberry.field(
        description='What the detail is, in words ("Product", "Quantity").'
    )
    value: str = strawberry.field(description="Its value, in words.")
