"""The vocabulary that puzzles, solvers and experiments share, owned by none of them.

    errors.py     `InputError`: one line that says what is wrong and how to fix it
    space.py      what a metaheuristic searches and reports: `PermutationSpace`, `Budget`, `Result`
    faces.py      what a puzzle offers a kind of solver: `Face`, and a Protocol per face
    exact.py      exact cover: `CoverModel`, `CaseAnswer`, `ExactReport`
    objective.py  the budgeted, traced fitness every optimiser calls (`Objective`, `Stop`)
    rng.py        the RNG state compiled kernels carry
    interrupt.py  Ctrl-C as a flag that compiled searches read

The floors: core/ imports nothing of the project; heuristics/ imports core/ only; puzzles/ may drive
a generic engine of heuristics/; experiments/ ties them together (tests/house/test_floors.py).
"""
