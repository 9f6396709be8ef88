"""The locustfile `arazzo load` gives Locust (`-f` this file): one user class, made from the flags that
`arazzo load` checked before it started Locust (`command.Current`). Not for `locust -f` by hand: write
a locustfile with a subclass of `arazzo_runner.locust.ArazzoUser` for that."""

from arazzo_runner.loadtest.locust.command import user_class

if (
    __name__ != "arazzo_runner.loadtest.locust.loadfile"
):  # as Locust's locustfile, not as a module of the package
    ArazzoLoad = user_class()
