"""README.md's two set-up commands stay true: CI runs the test command verbatim."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


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


def test_main_job_is_the_default_demo_headless():
    main = _commands()[0]
    assert main.endswith(".venv/bin/gpuia demo --headless")


def test_main_job_runs_and_says_where_the_picture_is(gpu_device, tmp_path):
    """The main command's gpuia part, run as a newcomer would (in a fresh folder), writes a PNG
    and prints its path."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "gpuia", "demo", "--headless",
                           "--size", "160x120"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    png = tmp_path / "gpuia-demo-mesh.png"
    assert f"picture: {png}" in proc.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


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
    # Step rate 2 is pulled; native cannot run it: one compared IA run, and the HLSL shader's
    # outputs against its CPU run (the vs outputs line): both match.
    assert scope["result"].ok and scope["result"].compared == 2
    assert [line.path for line in scope["result"].lines if line.status == "OK"] == [
        "pulling", "vs outputs"]
