"""The Muster compiler: rule files in, the checked rules (IR) and the outputs out.

- `load` — a ruleset's files, following imports, parsed by `dsl/`;
- `check/` — the checker as passes, with one checker per kind of declaration;
- `ir` — the checked rules, every value with its provenance;
- `map/` — the map model: hex geometry, the networkx graph, line of sight
  with shapely, the run-time board tables;
- `backends/` — the engine package, the print-and-play parts, the VASSAL module;
- `build` — every output written all or nothing (`output_folder`).

The commands that drive it live in `muster/`; nothing here imports them.
"""
