"""The GraphQL API: Strawberry types, resolvers, mutations, permissions, dataloaders, the app."""
