"""The one error type a user sees: a message that names the file, line or field at fault."""


class InputError(Exception):
    """Bad input or usage. The CLI prints the message on one line and exits with code 2."""


class LedgerBusyError(InputError):
    """The ledger file is locked by another process."""
