from trainops.cli import run

# Guarded: worker processes (trainops.model.parse_files) import this module under another name.
if __name__ == "__main__":
    run()
