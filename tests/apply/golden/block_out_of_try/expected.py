async def run(command):
    async with open_process(command) as process:
        contents = [None, None]
        async with create_task_group() as tg:
            tg.start_soon(drain, process.stdout, 0)
            tg.start_soon(drain, process.stderr, 1)
            await process.wait()

    output, errors = contents
    return output, errors
