"""The table: a local web page to play a built battle against a bot or a friend.

`muster table` serves it (table/server.py). Every rule is the engine's: the
page offers exactly `legal_actions()`, and asks `engine.explain` why an action
is refused. Each side's page is sent only that side's view (table/views.py).
"""
