"""GraphQL object types."""
