"""The wire contract of the API's custom scalars: each says its JSON form and points
(`@specifiedBy`) at the text that defines it, so generated clients can type it."""

import dataclasses

from strawberry.schema.types.base_scalars import DateDefinition, DateTimeDefinition

# RFC 3339 section 5.6 defines both `date-time` and `full-date` (ISO 8601's calendar
# date profile): one stable IETF anchor, cited by the GraphQL Scalars specifications too.
RFC_3339 = "https://datatracker.ietf.org/doc/html/rfc3339#section-5.6"

DATE_TIME = dataclasses.replace(
    DateTimeDefinition,
    description="An instant, as an RFC 3339 `date-time` string with its offset "
    '("2026-03-14T09:30:00+00:00", fractions of a second when there are any). Sent '
    "without an offset, it is refused where the API needs an instant.",
    specified_by_url=RFC_3339,
)

DATE = dataclasses.replace(
    DateDefinition,
    description='A calendar day, as an RFC 3339 `full-date` string ("2026-03-14"), '
    "with no time and no zone.",
    specified_by_url=RFC_3339,
)
