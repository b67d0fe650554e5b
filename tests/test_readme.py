"""README.md's two set-up commands stay true: CI runs the test command verbatim."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _commands():
    text = (ROOT / "README.md").read_text()
    return [c.strip() for c in re.findall(r"```sh\n(bash \.ci/setup &&[^\n]*)\n```", text)]


def test_readme_has_exactly_two_setup_commands():
    cmds = _commands()
    assert len(cmds) == 2, cmds
    assert "pytest" in cmds[1]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert _commands()[1] in ci.splitlines()


def test_main_job_inputs_exist():
    main = _commands()[0]
    assert "examples/cases/*.json" in main
    assert list((ROOT / "examples" / "cases").glob("*.json"))


def test_readme_python_example_runs(gpu_device):
    text = (ROOT / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)
    colors = scope["ref"].inputs["COLOR0"].values
    # Step rate 2: instances 0 and 1 read color 0 (red), instances 2 and 3 color 1 (green).
    assert colors[0].tolist() == [1.0, 0.0, 0.0, 1.0]
    assert colors[3 * 2].tolist() == [0.0, 1.0, 0.0, 1.0]
    assert scope["plan"].path == "pulling"
