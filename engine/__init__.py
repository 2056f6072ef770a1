"""The Muster runtime every generated engine imports: Game, State, the interpreter, primitives."""
