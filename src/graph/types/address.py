"""An address to deliver to, as the API shows and takes it."""

import strawberry

from db.rows import CustomerRow


@strawberry.type(description="Where to deliver: each part may be missing.")
class Address:
    lines: list[str] = strawberry.field(description="Street and house, up to 4 lines.")
    postcode: str | None
    city: str | None
    country: str | None

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
    lines: list[str] = strawberry.field(default_factory=list)
    postcode: str | None = None
    city: str | None = None
    country: str | None = None
