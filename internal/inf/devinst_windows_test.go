package inf

import (
	"slices"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// setupapi.h (mingw-w64): what SetupDiBuildDriverInfoList needs to list
// the drivers an INF has for a device.
type spDevinfoData struct {
	cbSize    uint32
	classGUID windows.GUID
	devInst   uint32
	reserved  uintptr
}

type spDevinstallParamsW struct {
	cbSize, flags, flagsEx                                           uint32
	hwndParent, handler, handlerCtx, fileQueue, classInstallReserved uintptr
	reserved                                                         uint32
	driverPath                                                       [260]uint16
}

type spDrvinfoDataW struct {
	cbSize, driverType                 uint32
	reserved                           uintptr
	description, mfgName, providerName [256]uint16
	driverDate                         windows.Filetime
	driverVersion                      uint64
}

type spDrvinfoDetailDataW struct {
	cbSize                           uint32
	infDate                          windows.Filetime
	compatIDsOffset, compatIDsLength uint32
	reserved                         uintptr
	sectionName                      [256]uint16
	infFileName                      [260]uint16
	drvDescription                   [256]uint16
	hardwareID                       [1]uint16
}

const (
	dicdGenerateID    = 0x00000001 // DICD_GENERATE_ID
	diEnumSingleINF   = 0x00010000 // DI_ENUMSINGLEINF
	spditCompatDriver = 0x00000002 // SPDIT_COMPATDRIVER
	spdrpHardwareID   = 0x00000001 // SPDRP_HARDWAREID
)

// guidDevclassNet is GUID_DEVCLASS_NET (devguid.h), the class of the
// device TestINFModelsSetupAPI creates.
var guidDevclassNet = windows.GUID{Data1: 0x4d36e972, Data2: 0xe325, Data3: 0x11ce, Data4: [8]byte{0xbf, 0xc1, 0x08, 0x00, 0x2b, 0xe1, 0x03, 0x18}}

var (
	procSetupDiCreateDeviceInfoList       = setupapi.NewProc("SetupDiCreateDeviceInfoList")
	procSetupDiDestroyDeviceInfoList      = setupapi.NewProc("SetupDiDestroyDeviceInfoList")
	procSetupDiCreateDeviceInfoW          = setupapi.NewProc("SetupDiCreateDeviceInfoW")
	procSetupDiRemoveDevice               = setupapi.NewProc("SetupDiRemoveDevice")
	procSetupDiSetDeviceRegistryPropertyW = setupapi.NewProc("SetupDiSetDeviceRegistryPropertyW")
	procSetupDiGetDeviceInstallParamsW    = setupapi.NewProc("SetupDiGetDeviceInstallParamsW")
	procSetupDiSetDeviceInstallParamsW    = setupapi.NewProc("SetupDiSetDeviceInstallParamsW")
	procSetupDiBuildDriverInfoList        = setupapi.NewProc("SetupDiBuildDriverInfoList")
	procSetupDiEnumDriverInfoW            = setupapi.NewProc("SetupDiEnumDriverInfoW")
	procSetupDiGetDriverInfoDetailW       = setupapi.NewProc("SetupDiGetDriverInfoDetailW")
)

// modelsINF's drivers for PCI\VEN_1234&DEV_0001 as SetupAPI lists them:
// a device of the Net class is created (and removed after), given that
// hardware ID and the INF alone to search (DI_ENUMSINGLEINF), and each
// driver SetupDiBuildDriverInfoList finds is "manufacturer:
// description=install section". Compared with modelsWant, and M4's with
// latlab's reading of its models section (TestINFModels; latlab skips the
// line with an empty install section).
func TestINFModelsSetupAPI(t *testing.T) {
	path := writeTempINF(t, modelsINF)
	set, _, err := procSetupDiCreateDeviceInfoList.Call(0, 0)
	if set == uintptr(windows.InvalidHandle) {
		t.Fatalf("SetupDiCreateDeviceInfoList: %v", err)
	}
	defer procSetupDiDestroyDeviceInfoList.Call(set)
	dev := spDevinfoData{cbSize: uint32(unsafe.Sizeof(spDevinfoData{}))}
	name, _ := windows.UTF16PtrFromString("LATLABINFTEST")
	if ok, _, err := procSetupDiCreateDeviceInfoW.Call(set, uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(&guidDevclassNet)), 0, 0, dicdGenerateID, uintptr(unsafe.Pointer(&dev))); ok == 0 {
		t.Fatalf("SetupDiCreateDeviceInfoW: %v", err)
	}
	defer procSetupDiRemoveDevice.Call(set, uintptr(unsafe.Pointer(&dev)))
	hwid, _ := windows.UTF16FromString(`PCI\VEN_1234&DEV_0001`)
	hwid = append(hwid, 0) // REG_MULTI_SZ
	if ok, _, err := procSetupDiSetDeviceRegistryPropertyW.Call(set, uintptr(unsafe.Pointer(&dev)), spdrpHardwareID, uintptr(unsafe.Pointer(&hwid[0])), uintptr(2*len(hwid))); ok == 0 {
		t.Fatalf("SetupDiSetDeviceRegistryPropertyW: %v", err)
	}
	params := spDevinstallParamsW{cbSize: uint32(unsafe.Sizeof(spDevinstallParamsW{}))}
	if ok, _, err := procSetupDiGetDeviceInstallParamsW.Call(set, uintptr(unsafe.Pointer(&dev)), uintptr(unsafe.Pointer(&params))); ok == 0 {
		t.Fatalf("SetupDiGetDeviceInstallParamsW: %v", err)
	}
	params.flags |= diEnumSingleINF
	p, _ := windows.UTF16FromString(path)
	copy(params.driverPath[:len(params.driverPath)-1], p)
	if ok, _, err := procSetupDiSetDeviceInstallParamsW.Call(set, uintptr(unsafe.Pointer(&dev)), uintptr(unsafe.Pointer(&params))); ok == 0 {
		t.Fatalf("SetupDiSetDeviceInstallParamsW: %v", err)
	}
	if ok, _, err := procSetupDiBuildDriverInfoList.Call(set, uintptr(unsafe.Pointer(&dev)), spditCompatDriver); ok == 0 {
		t.Fatalf("SetupDiBuildDriverInfoList: %v", err)
	}
	var api []string
	for i := uintptr(0); ; i++ {
		drv := spDrvinfoDataW{cbSize: uint32(unsafe.Sizeof(spDrvinfoDataW{}))}
		if ok, _, _ := procSetupDiEnumDriverInfoW.Call(set, uintptr(unsafe.Pointer(&dev)), spditCompatDriver, i, uintptr(unsafe.Pointer(&drv))); ok == 0 {
			break
		}
		buf := make([]uint64, 1024) // 8 KiB, aligned: the detail and its IDs
		det := (*spDrvinfoDetailDataW)(unsafe.Pointer(&buf[0]))
		det.cbSize = uint32(unsafe.Sizeof(spDrvinfoDetailDataW{}))
		if ok, _, err := procSetupDiGetDriverInfoDetailW.Call(set, uintptr(unsafe.Pointer(&dev)), uintptr(unsafe.Pointer(&drv)), uintptr(unsafe.Pointer(det)), uintptr(8*len(buf)), 0); ok == 0 {
			t.Fatalf("SetupDiGetDriverInfoDetailW: %v", err)
		}
		api = append(api, windows.UTF16ToString(drv.mfgName[:])+": "+windows.UTF16ToString(drv.description[:])+"="+windows.UTF16ToString(det.sectionName[:]))
	}
	if printSetupAPI {
		t.Logf("%#v", api)
	}
	if !slices.Equal(api, modelsWant) {
		t.Errorf("SetupAPI listed %q, the table %q", api, modelsWant)
	}
	f, err := Parse(strings.NewReader(modelsINF), "m.inf")
	if err != nil {
		t.Fatal(err)
	}
	var ours, apiM4 []string
	for _, m := range f.Models("D.NTamd64", "") {
		ours = append(ours, "M4: "+m.Description+"="+m.InstallSection)
	}
	for _, d := range api {
		if strings.HasPrefix(d, "M4: ") && d != "M4: d5empty=" {
			apiM4 = append(apiM4, d)
		}
	}
	if !slices.Equal(apiM4, ours) {
		t.Errorf("SetupAPI listed %q from [D.NTamd64] (but the empty section), latlab %q", apiM4, ours)
	}
}
