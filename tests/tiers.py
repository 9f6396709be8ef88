"""The fast tier, `python -m pytest -m "not slow"`: the developer loop. The full suite (`-n auto` in the
README) runs everything; the tests named here are `slow`, left out of the fast tier, each with what it
waits for. tests/conftest.py marks them at collection; a `@long_test` (tests/timeouts.py) is slow too.

Measured per test (the CPU time of the test and of its child processes; the README's Tests section has
the totals), the full suite's time goes to: the end-to-end tests (brokers and the clients talking to
them, a headless Chromium, Locust masters and workers, Neovim and `arazzo lsp` over stdio, `arazzo mcp`,
LLMock and many `arazzo` processes, each importing the package), the fuzz campaigns, the reference model
server driven by the official clients, and the unit tests below that generate many inputs, parse
megabytes or measure the same work at two sizes. The end-to-end folder is slow as a whole, but for the
few in-process files FAST_E2E keeps, which run the engine end to end against a local server. Every
package of arazzo_runner stays loaded by some fast test file (tests/unit/test_tiers.py checks it).
"""

from __future__ import annotations

from fnmatch import fnmatch

# pattern of test files (relative to the repository, `/` separators) -> what their tests wait for
SLOW_FILES: dict[str, str] = {
    "tests/e2e/*": "real servers, brokers, browsers and `arazzo` processes (but FAST_E2E)",
    "tests/fuzz/*": "hypothesis: many generated inputs per test",
    "tests/unit/reference/*": "the reference model server, driven by the official clients over sockets",
    "tests/plugin/test_pytest_plugin_agent.py": "pytest in a child process, with the reference model server",
}

# end-to-end files in the fast tier: in-process `arazzo` against a local server, little CPU each
FAST_E2E: dict[str, str] = {
    "tests/e2e/test_agent.py": "the agent loop against a scripted model server",
    "tests/e2e/test_cli_run.py": "`arazzo run` in-process",
    "tests/e2e/test_dry_run.py": "`arazzo run --dry-run`",
    "tests/e2e/test_exec_actions.py": "success and failure actions",
    "tests/e2e/test_exec_criteria.py": "success criteria on real responses",
    "tests/e2e/test_exec_retry.py": "retries",
    "tests/e2e/test_generate.py": "`arazzo generate`",
    "tests/e2e/test_http_bodies.py": "request bodies on the wire",
    "tests/e2e/test_http_parameters.py": "parameters on the wire",
    "tests/e2e/test_http_security.py": "security schemes on the wire",
    "tests/e2e/test_journal_replay.py": "the run journal replayed",
    "tests/e2e/test_load_locustfile.py": "a locustfile's mistake stops Locust (its whole run is a long test)",
    "tests/e2e/test_report_html.py": "the HTML report written",
}

# packages a fast test loads only in a child process (Locust's entry patches the importing process with
# gevent: never pytest's own) -> the fast test file that does
LOADED_IN_A_CHILD: dict[str, str] = {"arazzo_runner.locust": "tests/e2e/test_load_locustfile.py"}

# test file -> (what its slow tests wait for, their names: every parameter of each)
SLOW_TESTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "tests/e2e/test_report_html.py": (
        "the docs' Python example run as a process",
        ("test_the_python_example_of_docs_reports_runs",),
    ),
    "tests/unit/tools/test_mcp_fast.py": (
        "the MCP SDK imported to compare its stamps",
        ("test_a_call_of_the_stateless_protocol_is_answered_here_stamped_as_the_sdk_stamps_it",),
    ),
    "tests/unit/test_corpus_documents.py": (
        "every document of the ../shared corpus loaded and compiled",
        ("test_document_loads_compiles_or_fails_located",),
    ),
    "tests/unit/sources/test_sources_corpus.py": (
        "every document of the ../shared corpus read as a source",
        ("test_corpus_document_gives_what_it_is_expected_to",),
    ),
    "tests/unit/loader/test_loader_corpus.py": (
        "every file of the ../shared corpus loaded",
        ("test_corpus_file_loads_or_fails_cleanly",),
    ),
    "tests/unit/validate/test_validate_corpus.py": (
        "every document of the ../shared corpus validated",
        ("test_corpus_document_validates_without_a_crash",),
    ),
    "tests/unit/validate/test_upgrade.py": (
        "every 1.0 document of the ../shared corpus upgraded",
        ("test_every_corpus_document_upgrades_or_says_why_not",),
    ),
    "tests/unit/validate/test_fix_corpus.py": (
        "every document of the ../shared corpus fixed and read back",
        (
            "test_the_corpus_has_fixable_documents",
            "test_fix_round_trips",
        ),
    ),
    "tests/unit/validate/test_validate_schema_caches.py": (
        "every document of ../shared validated twice, or by both validators",
        (
            "test_validating_the_corpus_twice_gives_identical_findings_in_one_process_and_across",
            "test_the_two_validators_agree_on_every_shared_document",
        ),
    ),
    "tests/plugin/test_pytest_plugin.py": (
        "pytest run in a child process",
        (
            "test_a_broken_document_is_a_collection_error",
            "test_the_sandbox_option_refuses_reads_outside_it",
            "test_the_sandbox_ini_option_is_relative_to_the_ini_file",
        ),
    ),
    "tests/plugin/test_pytest_plugin_auth.py": (
        "pytest run in a child process",
        (
            "test_a_padded_base64_value_given_without_its_key_is_never_shown",
            "test_a_variable_no_scheme_reads_is_named_with_the_one_it_misses",
            "test_the_ini_key_sends_the_credential_and_the_option_wins",
        ),
    ),
    "tests/plugin/test_pytest_plugin_events.py": (
        "pytest run in a child process, with a broker",
        ("test_event_workflows_are_pytest_items",),
    ),
    "tests/unit/criteria/test_criteria_properties.py": (
        "hypothesis: many generated conditions",
        (
            "test_not_equal_is_the_negation_of_equal",
            "test_comparisons_never_raise_and_are_booleans",
            "test_equality_is_reflexive",
            "test_null_is_never_ordered",
            "test_simple_parser_only_raises_expression_errors",
            "test_jsonpath_conditions_only_raise_expression_errors",
        ),
    ),
    "tests/unit/expressions/test_expr_fast.py": (
        "hypothesis: the fast path against the full parser on generated input",
        (
            "test_fast_path_is_the_full_parser",
            "test_templates_skip_to_the_next_dollar_and_read_the_same",
            "test_declared_names_are_read_by_the_full_parser",
        ),
    ),
    "tests/unit/generate/test_generate_bounds.py": (
        "the generator's worst cases, run to their CPU bound",
        (
            "test_catastrophic_patterns_of_twelve_parameters_are_bounded",
            "test_fan_out_through_refs_is_generated_within_a_cpu_bound",
        ),
    ),
    "tests/unit/generate/test_generate_emit.py": (
        "hypothesis: generated data written and read back",
        ("test_any_data_reads_back_the_same_with_both_readers",),
    ),
    "tests/unit/generate/test_generate_schemas.py": (
        "hostile schemas run to their bounds",
        ("test_hostile_schemas_end_within_bounds",),
    ),
    "tests/unit/http/test_json_fast.py": (
        "hypothesis: jiter against json.loads on generated texts; two sizes read in child processes",
        (
            "test_jiter_reads_every_generated_text_to_the_values_json_loads_gives",
            "test_a_big_body_costs_the_engine_less_memory_at_the_peak_than_json_loads",
        ),
    ),
    "tests/unit/http/test_json_text.py": (
        "megabytes of JSON parsed, the same work at two sizes",
        (
            "test_an_ordinary_large_body_costs_a_fraction_of_its_parse",
            "test_the_depth_is_exact_for_any_json",
            "test_sixteen_mib_of_hostile_brackets_are_measured_in_linear_time",
        ),
    ),
    "tests/unit/http/test_sse_bounds.py": (
        "the same stream at two sizes (linear time)",
        (
            "test_tool_call_fragments_without_index_merge_in_linear_time",
            "test_logprobs_over_many_chunks_merge_in_linear_time",
        ),
    ),
    "tests/unit/loader/test_loader_hostile.py": (
        "huge documents (up to 50 MB) parsed",
        (
            "test_a_50_mb_document_loads_within_a_time_and_memory_bound",
            "test_a_duplicate_at_the_end_of_a_huge_mapping",
            "test_alias_bombs_fail_fast_in_little_memory",
        ),
    ),
    "tests/unit/query/test_query_bounds.py": (
        "query worker processes started, stopped and replaced",
        (
            "test_an_rfc9535_query_that_grows_the_process_too_much_is_stopped",
            "test_an_xpath_needing_too_much_memory_fails_and_the_next_one_runs",
            "test_xpath_on_many_threads_at_once_uses_at_most_max_workers",
            "test_a_worker_that_stops_answering_is_killed_and_replaced",
            "test_an_xpath_replacement_target_is_bounded",
            "test_compiling_an_expensive_constant_xpath_is_an_error_and_is_remembered",
            "test_an_xpath_evaluation_is_stopped_and_the_worker_serves_the_next_one",
            "test_a_result_larger_than_the_reply_limit_is_refused",
            "test_the_worker_never_imports_xmlschema",
            "test_the_worker_gets_no_environment_secrets",
        ),
    ),
    "tests/unit/query/test_query_jsonpath.py": (
        "the JSONPath parser built again and compared",
        ("test_the_shared_goessner_parser_reads_as_a_fresh_one_each_time",),
    ),
    "tests/unit/sources/test_schema_patterns.py": (
        "hypothesis: generated patterns against the originals",
        (
            "test_generated_patterns_give_the_same_verdicts",
            "test_the_bounded_classes_say_what_the_originals_say",
        ),
    ),
    "tests/unit/test_decoding.py": (
        "megabytes compressed and decoded piece by piece",
        (
            "test_each_coding_gives_the_body_back_in_bounded_pieces",
            "test_a_bomb_is_decoded_only_as_far_as_it_is_read",
        ),
    ),
    "tests/unit/test_found_by_fuzzing.py": (
        "the fuzzers' large inputs replayed",
        (
            "test_expressions",
            "test_long_and_or_chains_evaluate_without_recursion",
        ),
    ),
    "tests/unit/test_import_hygiene.py": (
        "every module imported in a fresh interpreter",
        ("test_importing_every_module_leaves_logging_and_the_process_alone",),
    ),
    "tests/unit/test_masking_stream.py": (
        "hypothesis: texts split at every place",
        (
            "test_any_split_releases_the_whole_text_masked_and_never_a_secret",
            "test_a_real_token_in_random_pieces_is_never_shown",
            "test_urls_with_a_password_in_random_pieces_read_as_the_whole_text",
        ),
    ),
    "tests/unit/test_module_state.py": (
        "every module imported and inspected",
        ("test_every_module_level_container_is_a_constant_or_a_documented_cache",),
    ),
    "tests/unit/test_patterns.py": (
        "hypothesis: generated patterns against `re`",
        ("test_regex_matches_what_re_matches_on_generated_patterns",),
    ),
    "tests/unit/test_simple_schema.py": (
        "hypothesis: generated schemas against jsonschema",
        ("test_same_verdict_as_jsonschema",),
    ),
    "tests/unit/test_untested_skips.py": (
        "pytest in a child process; every test file parsed",
        (
            "test_every_skip_that_hides_a_claim_is_listed_at_the_end",
            "test_the_suite_skips_only_through_the_helpers_where_a_claim_is_hidden",
        ),
    ),
    "tests/unit/validate/test_validate_early_worker.py": (
        "the validation worker process started",
        (
            "test_the_worker_starts_before_the_first_document_and_serves_the_check",
            "test_a_request_waits_for_the_worker_being_started_and_uses_it",
        ),
    ),
    "tests/unit/validate/test_validate_many_steps.py": (
        "documents of up to 10,000 steps validated, at two sizes",
        (
            "test_validation_cost_grows_linearly_with_the_steps",
            "test_a_workflow_over_the_step_limit_is_a_located_finding",
            "test_ten_thousand_steps_validate_within_cpu_and_memory_bounds",
        ),
    ),
}


def slow_reason(nodeid: str) -> str | None:
    """What the test `nodeid` (`path::name[parameters]`, the path relative to the repository) waits for,
    if it is slow; None when it is in the fast tier."""
    path, _, name = nodeid.partition("::")
    if path in SLOW_TESTS and name.partition("[")[0] in SLOW_TESTS[path][1]:
        return SLOW_TESTS[path][0]
    if path in FAST_E2E:
        return None
    return next((why for pattern, why in SLOW_FILES.items() if fnmatch(path, pattern)), None)


def slow_file(path: str) -> bool:
    """Is every test of the file `path` slow (as a file, whatever its tests' names)?"""
    return path not in FAST_E2E and any(fnmatch(path, pattern) for pattern in SLOW_FILES)
