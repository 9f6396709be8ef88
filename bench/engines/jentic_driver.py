"""Runs one workflow with Jentic's `arazzo-runner` library; started by compare.py with the Python of
Jentic's own venv (`python -I`, so this project's `arazzo_runner` can never be the one imported).

Its CLI has no server URL override (only server variables), so this driver loads the document as the
CLI does (`ArazzoRunner.from_arazzo_path`), points the first `servers` entry of each named OpenAPI
source at the mock, and calls `execute_workflow`, counting the steps it reports complete. It writes one
JSON object to the result path: status (the library's `WorkflowExecutionStatus`), error, the steps that
completed successfully and those that failed, or the exception that escaped the library.

    python -I jentic_driver.py DOCUMENT WORKFLOW_ID INPUTS.json SERVERS.json RESULT.json
"""

import json
import sys
import traceback


def main() -> None:
    document, workflow_id, inputs_path, servers_path, result_path = sys.argv[1:6]
    with open(inputs_path) as f:
        inputs = json.load(f)
    with open(servers_path) as f:
        servers = json.load(f)
    out = {"ok_steps": [], "failed_steps": []}
    try:
        import arazzo_runner
        from arazzo_runner import ArazzoRunner

        out["module"] = arazzo_runner.__file__
        runner = ArazzoRunner.from_arazzo_path(document)
        for name, description in (runner.source_descriptions or {}).items():
            if name in servers and isinstance(description, dict):
                description["servers"] = [{"url": servers[name]}]

        def on_step(execution_id, workflow_id, step_id, success, outputs=None, error=None):
            entry = {"workflow": workflow_id, "step": step_id}
            if error is not None:
                entry["error"] = str(error)[:300]
            out["ok_steps" if success else "failed_steps"].append(entry)

        runner.register_callback("step_complete", on_step)
        result = runner.execute_workflow(workflow_id, inputs)
        out["status"] = str(getattr(result.status, "value", result.status))
        out["error"] = None if result.error is None else str(result.error)[:500]
    except BaseException as exc:
        out["exception"] = {"type": type(exc).__name__, "message": str(exc)[:500]}
        out["traceback"] = traceback.format_exc()[-2000:]
    with open(result_path, "w") as f:
        json.dump(out, f, default=str)


if __name__ == "__main__":
    main()
