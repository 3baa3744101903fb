"""An address to deliver to, as the API shows and takes it."""

import strawberry

from db.rows import CustomerRow


@strawberry.type(description="Where to deliver: each part may be missing.")
class Address:
    lines: list[str] = strawberry.field(description="Street and house, up to 4 lines.")
    postcode: str | None = strawberry.field(
        description="The postal code, as written; null when not given."
    )
    city: str | None = strawberry.field(description="The town or city; null when not given.")
    country: str | None = strawberry.field(
        description="The country, as written; null when not given."
    )

    @strawberry.field(description="Whether any part is given.")
    def given(self) -> bool:
        return bool(self.lines or self.postcode or self.city or self.country)

    @classmethod
    def of(cls, row: CustomerRow) -> "Address":
        return cls(
            lines=list(row.address_lines), postcode=row.postcode, city=row.city, country=row.country
        )


@strawberry.input(
    description="An address; it replaces the old one whole (an empty text clears a part)."
)
class AddressInput:
    lines: list[str] = strawberry.field(
        default_factory=list,
        description="Street and house, up to 4 lines of up to 120 characters; empty lines are "
        "dropped.",
    )
    postcode: str | None = strawberry.field(
        default=None, description="The postal code; empty or null clears it."
    )
    city: str | None = strawberry.field(
        default=None, description="The town or city; empty or null clears it."
    )
    country: str | None = strawberry.field(
        default=None, description="The country; empty or null clears it."
    )
