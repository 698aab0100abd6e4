"""nbconvert's ExecutePreprocessor, except that no output is lost when it arrives after its cell's idle status.

The Deno kernel can publish a cell's last outputs (execute_result, display_data, stream) just after the
`status: idle` that ends the cell (about one cell in 25 here, with Deno 2.9). nbclient stops reading a cell's
messages at that idle and drops what arrives later, so executed notebooks lost tables, figures and printed
lines at random, and a `Promise { undefined }` a cell showed could go unseen. Here every IOPub message goes to
the cell whose request it answers (its parent message id), whenever it arrives, and one last request (`void 0`)
is executed after the notebook's cells, so that outputs still under way arrive before the notebook is written.

Used by `deno task notebooks` (lib/cli/notebooks.ts) through
`jupyter nbconvert --NotebookExporter.preprocessors=notebook_executor.RoutingExecutePreprocessor`
with this folder on PYTHONPATH. Overrides nbclient's `_async_poll_output_msg` (nbclient 0.5 to 0.10).
"""

from nbclient.exceptions import CellExecutionComplete
from nbclient.util import ensure_async
from nbconvert.preprocessors import ExecutePreprocessor
from nbformat.v4 import new_code_cell


class RoutingExecutePreprocessor(ExecutePreprocessor):
    """Executes a notebook, routing each output to its cell by the request it answers."""

    def preprocess(self, nb, resources=None, km=None):
        self._cells_by_request = {}
        flush = new_code_cell("void 0")
        nb.cells.append(flush)
        try:
            return super().preprocess(nb, resources, km)
        finally:
            nb.cells.remove(flush)

    async def _async_poll_output_msg(self, parent_msg_id, cell, cell_index):
        self._cells_by_request[parent_msg_id] = (cell, cell_index)
        while True:
            msg = await ensure_async(self.kc.iopub_channel.get_msg(timeout=None))
            target = self._cells_by_request.get(msg["parent_header"].get("msg_id"))
            if target is None:
                continue
            try:
                self.process_message(msg, target[0], target[1])
            except CellExecutionComplete:
                if target[0] is cell:
                    return
