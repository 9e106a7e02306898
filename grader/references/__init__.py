"""What more than one day's checks share: float64 references, tolerances and the helpers around them.

Below the day modules (grader/exercises/dayNN.py) and above grader.checks and grader.launchers: a day
module takes what an earlier or later day also needs from here, never from another day's module
(tests/test_layers.py).
"""
