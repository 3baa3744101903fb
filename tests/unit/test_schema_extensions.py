"""The schema's extensions: made afresh for every request, so that concurrent requests
never share one (Strawberry sets each extension's execution context per request)."""

from strawberry.extensions import SchemaExtension

from graph.schema import DocumentLimits, schema


def _made() -> list[SchemaExtension]:
    return schema.get_extensions()


def test_no_extension_instance_is_shared_between_requests() -> None:
    first, second = _made(), _made()
    assert len(first) == len(second) > 0
    assert all(a is not b for a, b in zip(first, second, strict=True))


def test_the_limit_rules_are_the_same_classes_for_every_request() -> None:
    # The validation cache keys on the rule classes: new classes per request would
    # make every request miss it.
    def rules(extensions: list[SchemaExtension]) -> list[type]:
        return [rule for e in extensions if isinstance(e, DocumentLimits) for rule in e.RULES]

    first, second = rules(_made()), rules(_made())
    assert len(first) == 2
    assert first == second
