from xoff.cli import run

run()
