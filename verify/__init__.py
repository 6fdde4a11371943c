"""`vlkb verify`: replays of KB failures and their fixes (issue 5). Needs the `verify` extra."""
