"""What must never be printed: the `Masker` every writer applies, and `clip`, the one way messages cut
long values (`secrets`); which values derive from a secret, so that criteria, outputs and the printed
form of a request show none of them (`taint`)."""
