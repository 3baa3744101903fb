"""What the input rules' unit tests share: a call refused as INVALID_INPUT on a field."""

from typing import Any

import pytest

from domain.errors import DomainError, ErrorCode


def invalid(field: str, call: Any, *args: Any, **kwargs: Any) -> str:
    """Call, expect INVALID_INPUT on `field`, return the message."""
    with pytest.raises(DomainError) as info:
        call(*args, **kwargs)
    assert info.value.code is ErrorCode.INVALID_INPUT
    assert info.value.field == field
    assert info.value.message == str(info.value)
    return info.value.message
