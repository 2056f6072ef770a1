"""The map model: hex geometry, the networkx graph, line of sight with shapely, and
the run-time board tables the engine reads (DESIGN.md, "compiler/map/")."""
