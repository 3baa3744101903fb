"""Secrets off the command line, the parts without a database: how `create-user` reads a
password (one line of standard input with --password-stdin, else asked twice on the
terminal, and never prompted for without one: a script would hang), and which source URLs
of `import-legacy` hold a password (it warns). The commands themselves, under a real
pseudo-terminal too: tests/integration/test_cli_secrets.py."""

import getpass
import io
import sys

import pytest

from db.engine import holds_password
from pressroom.commands.people import NoPassword, read_password


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("stdin", "password"),
    [
        ("secret-pw1\n", "secret-pw1"),
        ("secret-pw1", "secret-pw1"),  # no line ending at the end of input
        ("secret-pw1\r\n", "secret-pw1"),
        (" secret pw 1 \n", " secret pw 1 "),  # spaces are the password's own
        ("pass\rword\n", "pass\rword"),
        ("secret-pw1\nsecret-pw2\n", "secret-pw1"),  # one line, the rest left unread
        ("\n", ""),
        ("", ""),  # nothing: the password rule refuses it
    ],
)
def test_password_stdin_is_one_line(
    stdin: str, password: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    assert read_password(from_stdin=True) == password


def test_without_a_terminal_it_asks_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    monkeypatch.setattr(sys, "stdin", io.StringIO("secret-pw1\n"))
    monkeypatch.setattr(getpass, "getpass", lambda prompt="": asked.append(prompt) or "")

    with pytest.raises(NoPassword, match=r"not a terminal.*--password-stdin"):
        read_password(from_stdin=False)
    assert asked == []


@pytest.mark.parametrize(
    ("answers", "password", "error"),
    [
        (["secret-pw1", "secret-pw1"], "secret-pw1", None),
        (["secret-pw1", "secret-pw2"], None, "the two passwords differ; nothing was changed."),
        (["secret-pw1", EOFError()], None, "no password given."),
        ([EOFError()], None, "no password given."),
    ],
)
def test_on_a_terminal_it_asks_twice(
    answers: list[str | EOFError],
    password: str | None,
    error: str | None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[str] = []

    def ask(prompt: str = "Password: ") -> str:
        asked.append(prompt)
        answer = answers[len(asked) - 1]
        if isinstance(answer, EOFError):
            raise answer
        return answer

    monkeypatch.setattr(sys, "stdin", Terminal(""))
    monkeypatch.setattr(getpass, "getpass", ask)

    if error is None:
        assert read_password(from_stdin=False) == password
    else:
        with pytest.raises(NoPassword) as raised:
            read_password(from_stdin=False)
        assert str(raised.value) == error
    assert asked == ["Password: ", "Password again: "][: len(answers)]


@pytest.mark.parametrize(
    ("url", "holds"),
    [
        ("postgresql://reader:sesame@old-host/oldshop", True),
        ("postgresql://reader:sesame@/oldshop?host=/run/postgresql", True),
        ("postgresql://reader@old-host/oldshop?password=sesame", True),
        ("postgresql+asyncpg://reader:s%40same@old-host:5433/oldshop", True),
        ("postgresql://reader@old-host/oldshop", False),
        ("postgresql://old-host/oldshop", False),
        ("postgresql://postgres:@/postgres?host=/tmp/pg", False),  # the embedded server's
        ("postgresql://reader@old-host/oldshop?sslmode=require", False),
    ],
)
def test_which_urls_hold_a_password(url: str, holds: bool) -> None:
    assert holds_password(url) is holds
