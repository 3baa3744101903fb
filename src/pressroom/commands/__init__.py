"""The `pressroom` command's subcommands, one module a family; `pressroom.cli` parses the
arguments and calls them."""
