// ... existing code ...
func add(a int, b int) int {
    if a == 0 {
        return b
    }
    return a + b
}
// ... existing code ...
