"""The Muster compiler: loading, checking, the IR, the map model and the backends."""
