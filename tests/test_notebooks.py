"""Every notebook in notebooks/ runs top to bottom in a fresh kernel of this interpreter, and draws its plots.

Notebooks are stored without outputs (clean diffs); the test executes an in-memory copy.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
CELL_TIMEOUT = 300  # seconds per cell; the whole tour takes well under a minute on 2 cores


def test_notebooks_exist() -> None:
    assert NOTEBOOKS, f"no notebooks found in {NOTEBOOK_DIR}"


@pytest.fixture
def venv_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A "python3" kernelspec running *this* interpreter, found before any user or system spec of that name."""
    spec_dir = tmp_path / "kernels" / "python3"
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (test)",
        "language": "python",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    monkeypatch.setenv("MPLBACKEND", "Agg")  # never a GUI window; notebooks use %matplotlib inline for figures
    return "python3"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_stored_without_outputs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    dirty = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count)]
    assert not dirty, f"{path.name}: clear the outputs of cells {dirty} before committing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path: Path, venv_kernel: str) -> None:
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("import sys; print(sys.executable, end='')"))
    client = nbclient.NotebookClient(
        nb, timeout=CELL_TIMEOUT, kernel_name=venv_kernel, resources={"metadata": {"path": str(NOTEBOOK_DIR)}}
    )
    client.execute()  # raises CellExecutionError, naming the cell, on any error

    probe = nb.cells.pop()
    assert probe.outputs[0]["text"] == sys.executable, "the notebook ran in another interpreter than the tests"
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    plot_cells = [c for c in code_cells if "plt.show()" in c.source]
    assert plot_cells, f"{path.name} draws no plots"
    for cell in plot_cells:
        kinds = {k for out in cell.outputs for k in out.get("data", {})}
        assert "image/png" in kinds, f"{path.name}: a plotting cell produced no image:\n{cell.source[:200]}"
