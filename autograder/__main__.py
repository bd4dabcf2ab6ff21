from autograder.cli import app

app()
