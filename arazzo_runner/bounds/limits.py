"""Default bounds of a run, in a module with no imports so the command line can show them cheaply."""

DEFAULT_MAX_STEPS = 1000  # step executions per run, a guard against goto loops (`--max-steps`)
DEFAULT_MAX_LOOP_ITEMS = 1000  # items an `x-forEach` step runs its workflow for (`--max-loop-items`)
DEFAULT_MAX_ATTEMPTS = 100  # attempts per step execution, whatever `retryLimit` says
DEFAULT_MAX_RETRY_TOTAL = 600.0  # seconds a step may spend retrying (attempts and waits together)
DEFAULT_MAX_BODY = 16 * 2**20  # response bytes read per exchange (`--max-response-bytes`)
REGEX_TIMEOUT = 1.0  # seconds one `regex` criterion may spend matching (catastrophic backtracking)
SCHEMA_PATTERN_TIMEOUT = (
    5.0  # seconds the schema patterns of one check (a request, a response, inputs) may match
)
MAX_SOURCE_DEPTH = 16  # arazzo sources nested in one another, counted from the document run
MAX_SOURCE_DOCUMENTS = 64  # Arazzo documents loaded per run as sources, however they nest
MAX_BODY_DEPTH = 128  # nesting levels of a JSON body (and event data) from a server; deeper is not parsed
QUERY_TIMEOUT = 5.0  # seconds one JSONPath or XPath evaluation may take (criterion, selector, replacement)
QUERY_MEMORY = 2**30  # bytes of address space of the process that evaluates XPath (and Goessner JSONPath)
COMPILE_TIMEOUT = 1.0  # seconds the constant part of one XPath expression may take when it is compiled
MAX_TOOL_CALLS = 64  # tool calls of one model answer that `arazzo agent` runs; the rest are refused
TOOL_CALLS_IN_FLIGHT = 32  # tool calls (workflow runs) at once in an agent or MCP server process
