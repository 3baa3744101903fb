"""What the tests share: real databases and servers, the HTTP client, a small shop,
subscriptions and a webhook receiver. Each module's fixtures are registered for every test
by tests/conftest.py."""
