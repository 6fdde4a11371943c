"""The Textual TUI (`vlkb tui`): issue 6 builds it on top of vlkb.analyzer."""
