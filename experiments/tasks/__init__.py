"""What a run can do: the `task` config group (configs/task/) builds one of these classes.

A task takes its typed settings in its constructor and is called with the whole config and the run
directory; it writes the run's record there and returns its row. Add a task with a class here and a
YAML in configs/task/ that names it in `_target_`.
"""
