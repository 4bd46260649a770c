"""The benchmarks' `--set` reaches the optimiser it names: shared settings go to every optimiser,
"name:key=value" only to `name`, and the beam alone runs with beam_refine's beam."""

from benchmarks.bench_eternity2 import BEAM_ALONE, settings_for


def test_a_named_setting_reaches_only_its_optimiser():
    sets = ["portfolio:threads=1", "finish_width=20", "beam:width=3", "schedule=[1,2]"]
    assert settings_for("portfolio", sets) == ["finish_width=20", "schedule=[1,2]", "threads=1"]
    assert settings_for("breaks", sets) == ["finish_width=20", "schedule=[1,2]"]
    assert settings_for("beam", sets) == ["finish_width=20", "schedule=[1,2]", "width=3", *BEAM_ALONE]
