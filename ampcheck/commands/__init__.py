"""One module per CLI subcommand; thin wrappers that parse options and call the library."""
