"""Writers of run results: console text, listings (JSON, JUnit and HAR come with reporting)."""
