"""Long-running tools of the project (fuzzing); not part of the installed package."""
