"""Storage: tables, every SQL statement, transactions, the event log and embedded PostgreSQL.

Imports `domain` only; never `graph` (a test enforces it).
"""
