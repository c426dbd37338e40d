"""Files in and out: input paths read literally (literal), landed text checked as UTF-8 (text),
what trainbudget creates kept its owner's (permissions), and the folders shipped beside the
code (resources)."""
