"""Side files next to the index: named numpy arrays mapped at start, what they are checked
against, and the chunk rows held in RAM for the reads that show text."""
