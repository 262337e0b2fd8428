from trainops.cli import run

run()
