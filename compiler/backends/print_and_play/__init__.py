"""Print-and-play: counter sheets, charts and the map, drawn with Pillow from the IR alone.

`steps.print_steps` lists a part's work for `muster build`; `mix.check_counters`
is the checker's test that every counter can be drawn (its colours, symbols and
text), without the map's libraries that `steps` imports.
"""
